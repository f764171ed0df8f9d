#version 100
attribute vec4 pos;
varying float ok;
void main() {
    discard;
    gl_FragColor = vec4(1.0);
    float a = gl_FragCoord.x;
    attribute float late;
    gl_Position = pos;
}
