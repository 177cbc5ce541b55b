#version 450
// A GLSL compute shader: shared memory, barriers,
// a switch whose cases fall through into each other, do-while and for loops, and
// integer built-ins. Written for oxir's front-end tests.

layout(local_size_x = 64) in;

layout(std430, set = 0, binding = 0) buffer Data {
    uint count;
    float values[];
};

layout(std140, set = 0, binding = 1) uniform Settings {
    uint mode;
    float scale;
};

shared float partial[64];

float weight(uint mode, float x) {
    float w = 0.0;
    switch (mode) {
        case 0u:
            w += 1.0;
        case 1u:
            w += x;
            break;
        case 2u:
        case 3u:
            w = x * x;
            break;
        default:
            w = -x;
    }
    return w;
}

void main() {
    uint id = gl_GlobalInvocationID.x;
    uint lane = gl_LocalInvocationIndex;
    float x = id < count ? values[id] : 0.0;
    partial[lane] = weight(mode, x) * scale;
    barrier();
    for (uint stride = 32u; stride > 0u; stride >>= 1u) {
        if (lane < stride) {
            partial[lane] += partial[lane + stride];
        }
        barrier();
    }
    uint rounds = 0u;
    do {
        rounds += 1u;
    } while (rounds < findMSB(count) + 1u);
    if (lane == 0u) {
        values[gl_WorkGroupID.x] = partial[0] + float(bitCount(rounds));
    }
}
