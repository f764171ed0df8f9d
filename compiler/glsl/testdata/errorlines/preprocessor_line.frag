#version 100
precision mediump float;
#line 100
float undeclared1 = nothing1;
#line 200
float undeclared2 = nothing2;
#line 300 0
float undeclared3 = nothing3;
void main() {
    gl_FragColor = vec4(1.0);
}
