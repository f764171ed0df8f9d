#version 100
precision mediump float;
void main() {
    int a = 08;
    float b = 1.0e;
    int c = 0x;
    float d = 1.5e+;
    int e = 0779;
    float f = 2.0;
    gl_FragColor = vec4(f);
}
