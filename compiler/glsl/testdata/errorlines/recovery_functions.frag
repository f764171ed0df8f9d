#version 100
precision mediump float;
float f(float x) {
    return x +;
}
float g(float x) {
    return undeclared_g;
}
float h(float x) {
    int i = 1.0;
    return x;
}
void main() {
    gl_FragColor = vec4(f(1.0) + g(1.0) + h(1.0));
}
