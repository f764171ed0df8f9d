#version 100
precision mediump float;
#define X 1 \
  + 2
float a = 1.0;
float b = undeclared;
void main() {
    gl_FragColor = vec4(a);
}
