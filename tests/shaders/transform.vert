#version 450
// A GLSL vertex shader: vertex attributes, a uniform block with matrices, built-in
// vertex and instance indices, gl_Position, and a struct-free varying interface.
// Written for oxir's front-end tests.

layout(location = 0) in vec3 a_position;
layout(location = 1) in vec3 a_normal;
layout(location = 2) in vec2 a_uv;

layout(location = 0) out vec3 v_normal;
layout(location = 1) out vec2 v_uv;
layout(location = 2) flat out int v_material;

layout(set = 0, binding = 0) uniform Camera {
    mat4 view;
    mat4 projection;
} camera;

void main() {
    vec4 world = vec4(a_position + vec3(float(gl_InstanceIndex) * 2.0, 0.0, 0.0), 1.0);
    gl_Position = camera.projection * camera.view * world;
    v_normal = mat3(camera.view) * a_normal;
    v_uv = a_uv;
    v_material = int(gl_VertexIndex) % 4;
}
