#version 100
precision mediump float;
float f(float x) {
    x = x +;
    return x;
}
float g(float x) {
    return undeclared_g;
}
float h(float x) {
    int i = 1.0;
    return x;
}
float k(float x) {
    x = (x;
    return x * 2;
}
void main() {
    gl_FragColor = vec4(f(1.0) + g(1.0) + h(1.0) + k(1.0));
}
