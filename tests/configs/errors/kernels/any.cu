// A kernel that takes any arguments: the unit tests of how one argument is
// written (buffers, scalars, fills) launch it, so that no parameter list
// constrains what they list.
template <typename... Arguments>
__global__ void any_arguments(Arguments... arguments)
{
}
