#version 100
precision mediump float;
void main() {
    float a = 1.0;
    float b = a $ 2.0;
    float c = 2.0;
    float d = c @ 1.0;
    float e = 3.0;
    gl_FragColor = vec4(a + c + e);
}
