precision mediump float;
#version 100
void main() {
    gl_FragColor = vec4(1.0);
}
