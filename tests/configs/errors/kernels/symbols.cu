// A kernel that reads a __constant__ filter (never compiled: the config's
// checks of `symbol` buffers read its declarations).
#define TAPS 4
__constant__ float c_filter[TAPS];

extern "C" __global__ void filter(const float *in, float *out, int n)
{
}
