#version 100
precision mediump float;
uniform float u;
varying vec2 v;
const float k = 1.0;
void main() {
    u = 1.0;
    v = vec2(1.0);
    k = 2.0;
    vec2 a = vec2(1.0);
    a.xx = vec2(2.0);
    1.0 = a.x;
    const float c;
    float d = u;
    d++;
    gl_FragColor = vec4(a, d, 1.0);
}
