#version 100
precision mediump float;
uniform float u;
void main() {
    float x = 0.0;
    if (u > 0.0 { x = 1.0; }
    float a = undeclared_a;
    for (int i = 0; i < 2 i++) { x += 1.0; }
    float b = undeclared_b;
    while (u > 0.0) { x = u + ; }
    float c = undeclared_c;
    if (u > 1.0) { x = 2.0; } else { x = ; }
    int d = 1.0;
    gl_FragColor = vec4(x);
}
