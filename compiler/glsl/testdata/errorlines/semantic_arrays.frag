#version 100
precision mediump float;
uniform int n;
float a[n];
float b[0];
float c[-1];
float d[2] = float[2](1.0, 2.0);
void main() {
    float e[3];
    float f = e[3];
    float g = e[-1];
    float h[2];
    h = e;
    gl_FragColor = vec4(f + g);
}
