#version 450
// A GLSL fragment shader: a combined uniform block, a sampler, matrix and vector
// built-ins, GLSL's inverse and mixed scalar/vector arguments, discard.
// Written for oxir's front-end tests.

layout(location = 0) in vec3 v_normal;
layout(location = 1) in vec2 v_uv;
layout(location = 2) flat in int v_material;

layout(location = 0) out vec4 o_color;

layout(set = 0, binding = 0) uniform Lighting {
    vec4 light_direction;
    mat3 normal_matrix;
};
layout(set = 0, binding = 1) uniform texture2D albedo;
layout(set = 0, binding = 2) uniform sampler albedo_sampler;

void main() {
    vec3 n = normalize(inverse(normal_matrix) * v_normal);
    float diffuse = clamp(dot(n, -light_direction.xyz), 0.0, 1.0);
    vec4 base = texture(sampler2D(albedo, albedo_sampler), v_uv);
    if (base.a < 0.1) {
        discard;
    }
    vec3 tinted = mix(base.rgb, vec3(1.0, 0.5, 0.25), 0.25) * step(0.5, diffuse);
    o_color = vec4(tinted * smoothstep(0.0, 1.0, diffuse) + float(v_material) * 0.01, base.a);
}
