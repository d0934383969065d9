// Twenty MiB of initialised data: a program over the build's 16 MiB artefact cap.
char big[20 << 20] = {1};
int main() { return big[7]; }
