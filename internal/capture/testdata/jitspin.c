/* jitspin copies a two-byte spin loop into an anonymous executable page,
 * names it perflab_jit_spin in /tmp/perf-PID.map as JITs do, prints
 * "ready" and spins there until killed. Built by capture's perf tests. */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(void) {
	unsigned char code[] = {0xEB, 0xFE}; /* x86-64: jmp to itself */
	void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	               MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) return 1;
	memcpy(p, code, sizeof code);
	char path[64];
	snprintf(path, sizeof path, "/tmp/perf-%d.map", (int)getpid());
	FILE *f = fopen(path, "w");
	if (!f) return 2;
	fprintf(f, "%lx %x perflab_jit_spin\n", (unsigned long)p, 16);
	fclose(f);
	printf("ready\n");
	fflush(stdout);
	((void (*)(void))p)();
	return 0;
}
