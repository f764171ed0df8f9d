#version 100
attribute vec4 pos;
#if 1 +
float a = 1.0;
#endif
#if
#endif
#if 2 == 2
#elif
#endif
#ifdef
#endif
#if defined(
#endif
#if 1 / 0
#endif
#endif
void main() {
    gl_Position = pos;
}
