// Helpers only: no kernel here.
__device__ float twice(float x)
{
    return 2.0f * x;
}
