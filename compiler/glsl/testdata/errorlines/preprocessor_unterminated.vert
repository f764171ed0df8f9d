#version 100
attribute vec4 pos;
#if 1
void main() {
    gl_Position = pos;
}
