// A file that sets its own sizes (never compiled: the config's checks of
// `defines` and sweeps read its directives and parameter lists).
#define SIZE 16384
#ifndef BLOCK
#define BLOCK 256
#endif

extern "C" __global__ void strided(float *out, const float *in, int s)
{
}
