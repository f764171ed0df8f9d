#version 100
precision mediump float;
#define B(x) x
#define B(y) y
#define C(a, b) a + b
#define C(a) a
#define D(a, a) a
#define E(
#define F
float f = C(1.0);
float g = B(2.0, 3.0);
float h = E(1.0);
void main() {
    gl_FragColor = vec4(f + g + h);
}
