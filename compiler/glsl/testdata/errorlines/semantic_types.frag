#version 100
precision mediump float;
uniform vec4 u;
uniform sampler2D s;
void main() {
    int a = 1.0;
    float b = 1;
    vec3 c = u;
    bool d = 1;
    vec4 e = u.xyzw;
    vec2 f = u.xq;
    float g = u.xyzwx;
    ivec2 h = ivec2(1, 2) + vec2(1.0);
    mat2 m = mat2(1.0) * vec3(1.0);
    float i = texture2D(s, 1.0).x;
    float j = texture2D(u, vec2(0.0)).x;
    gl_FragColor = e;
}
