/* A native library for the Shapes app's "beyondcopy" shape: a native
 * frame of 16 KiB between managed ones.  A copy of the stack taken deeper
 * down that ends inside this frame (the kernel copies 32 KiB) ends in
 * native code whose callers, managed ones among them, lie beyond the copy:
 * a walk that took that end for the thread's root would lose them. */
#include <stdint.h>
#include <string.h>

#define FRAME_BYTES 16384

__attribute__((visibility("default"))) int64_t clrscope_call_from_big_frame(int64_t (*fn)(int64_t), int64_t arg);
int64_t clrscope_call_from_big_frame(int64_t (*fn)(int64_t), int64_t arg)
{
	uint8_t pad[FRAME_BYTES];
	memset(pad, (int)(arg & 0xff), sizeof pad);
	__asm__ volatile("" : : "r"(pad) : "memory"); /* the frame stays, filled */
	int64_t r = fn(arg);
	__asm__ volatile("" : : "r"(pad) : "memory");
	return r + pad[(uint64_t)arg % FRAME_BYTES];
}
