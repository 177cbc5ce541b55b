#version 450
// Storage buffers in GLSL's std140 layout, whose array strides the storage rules (std430)
// do not give: floats and vec2s 16 bytes apart, structs rounded up to 16, and a runtime
// array of floats with stride 16. oxir keeps each source stride as the array type's
// explicit stride. Written for oxir's tests.
layout(local_size_x = 8) in;

struct Pair { float a; vec2 b; };

layout(std140, set = 0, binding = 0) readonly buffer Input {
    float scale[4];
    vec2 offsets[2];
    Pair pairs[2];
} src;

layout(std140, set = 0, binding = 1) buffer Output {
    uint count;
    float values[];
} dst;

void main() {
    uint i = gl_LocalInvocationID.x;
    float s = src.scale[i % 4u] * src.offsets[i % 2u].y;
    Pair p = src.pairs[(i / 2u) % 2u];
    dst.values[i] = s + p.a - p.b.x * float(i);
    if (i == 0u) {
        dst.count = 8u;
    }
}
