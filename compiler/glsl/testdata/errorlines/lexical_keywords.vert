#version 100
attribute vec4 pos;
int class;
float goto;
int long;
void main() {
    int switch = 1;
    float half = 1.0;
    int union = 2;
    gl_Position = pos;
}
