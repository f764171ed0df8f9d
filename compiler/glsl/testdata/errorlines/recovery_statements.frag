#version 100
precision mediump float;
uniform float u;
void main() {
    float x = 1.0;
    x = u +;
    float b = undeclared_b;
    x = (u * 2.0;
    float d = undeclared_d;
    x = u u;
    int f = 1.0;
    x = ;
    bool g = 1;
    gl_FragColor = vec4(x);
}
