#version 100
attribute vec4 pos;
float a = ;
float b = undeclared_b;
vec4 c = vec4(1.0 2.0);
int d = 1.0;
uniform float;
float e(float x { return x; }
float g = undeclared_g;
float h float;
bool i = 2;
void main() {
    gl_Position = pos;
}
