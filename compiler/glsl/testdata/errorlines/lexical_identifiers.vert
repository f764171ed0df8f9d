#version 100
attribute vec4 pos;
float a__b;
float gl_thing;
float __x;
void main() {
    float c__d = 1.0;
    float ok_name = 2.0;
    float gl_Local = 3.0;
    gl_Position = pos * ok_name;
}
