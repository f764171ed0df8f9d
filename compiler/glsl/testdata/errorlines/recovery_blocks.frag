#version 100
precision mediump float;
uniform float u;
void main() {
    if (u > 0.0 {
        float a = undeclared_a;
    }
    for (int i = 0; i < 2 i++) {
        float b = undeclared_b;
    }
    while (u > 0.0) { float c = u + ; }
    float d = undeclared_d;
    gl_FragColor = vec4(1.0);
}
