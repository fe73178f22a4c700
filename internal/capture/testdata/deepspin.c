/* deepspin: spins in leaf, called through middle and outer from main, all
 * built without frame pointers (-O2 -fomit-frame-pointer): perf's frame
 * pointer walk stops at leaf, DWARF unwinding reaches main. */
#include <stdio.h>

static volatile unsigned long sink;

__attribute__((noinline)) static unsigned long leaf(unsigned long n) {
	unsigned long h = n;
	for (unsigned long i = 0; i < 100000; i++)
		h = h * 6364136223846793005UL + i;
	return h;
}

__attribute__((noinline)) static unsigned long middle(unsigned long n) {
	return leaf(n) ^ leaf(n + 1);
}

__attribute__((noinline)) static unsigned long outer(unsigned long n) {
	return middle(n) + middle(n * 3);
}

int main(void) {
	printf("ready\n");
	fflush(stdout);
	for (unsigned long n = 0;; n++)
		sink += outer(n);
}
