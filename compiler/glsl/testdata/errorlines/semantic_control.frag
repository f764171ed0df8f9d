#version 100
precision mediump float;
uniform float u;
float f() { return; }
void g() { return 1.0; }
void main() {
    break;
    continue;
    if (u) { }
    while (1) { }
    for (int i = 0; i < 2; i++) { }
    float x = u > 0.0 ? 1 : 2.0;
    bool b = !u;
    float y = -true;
    gl_FragColor = vec4(x + y);
}
