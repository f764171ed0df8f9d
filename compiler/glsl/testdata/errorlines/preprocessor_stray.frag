#version 100
precision mediump float;
#else
float skipped = undeclared_in_stray_else;
#endif
float seen = undeclared_after_endif;
#elif 1
#endif
#endif
void main() {
    gl_FragColor = vec4(seen);
}
