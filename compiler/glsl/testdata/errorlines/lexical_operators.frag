#version 100
precision mediump float;
uniform int u;
void main() {
    int a = u % 2;
    int b = u << 1;
    int c = u >> 1;
    int d = u & 1;
    int e = u | 1;
    int f = u ^ 1;
    int g = ~u;
    int h = u;
    h %= 2;
    h <<= 1;
    h >>= 1;
    h &= 1;
    h |= 1;
    h ^= 1;
    gl_FragColor = vec4(float(a + b + c + d + e + f + g + h));
}
