// A tiny source whose program is huge: one byte aligned to 2^28 makes the linker
// write a file of hundreds of MiB (an attack on the build's output: the host's disk).
__attribute__((aligned(1 << 28))) char big[1] = {1};
int main() { return big[0]; }
