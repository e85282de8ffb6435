/* SPDX-License-Identifier: GPL-2.0 */
/*
 * linux/bitops.h for twheel's user-space builds: bit numbers in arrays of
 * unsigned long, bit 0 the lowest of word 0, and the bit searches of one
 * word.  One thread runs the wheel here, so the atomic forms are the plain
 * ones.
 */
#ifndef _SHIM_LINUX_BITOPS_H
#define _SHIM_LINUX_BITOPS_H

#include <linux/bits.h>
#include <linux/types.h>

#define BITS_TO_LONGS(nr)	(((nr) + BITS_PER_LONG - 1) / BITS_PER_LONG)

#define BIT_MASK(nr)	(1UL << ((nr) % BITS_PER_LONG))

static inline void __set_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] |= BIT_MASK(nr);
}

static inline void __clear_bit(unsigned long nr, unsigned long *addr)
{
	addr[BIT_WORD(nr)] &= ~BIT_MASK(nr);
}

static inline bool test_bit(unsigned long nr, const unsigned long *addr)
{
	return addr[BIT_WORD(nr)] & BIT_MASK(nr);
}

static inline bool __test_and_set_bit(unsigned long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__set_bit(nr, addr);
	return old;
}

static inline bool __test_and_clear_bit(unsigned long nr, unsigned long *addr)
{
	bool old = test_bit(nr, addr);

	__clear_bit(nr, addr);
	return old;
}

#define set_bit(nr, addr)		__set_bit(nr, addr)
#define clear_bit(nr, addr)		__clear_bit(nr, addr)
#define test_and_set_bit(nr, addr)	__test_and_set_bit(nr, addr)
#define test_and_clear_bit(nr, addr)	__test_and_clear_bit(nr, addr)

/* Index of the lowest set bit of @word, which is not 0. */
static inline unsigned long __ffs(unsigned long word)
{
	return __builtin_ctzl(word);
}

/*
 * Index of the highest set bit of @word, which is not 0.  On x86-64 the
 * one instruction the kernel's __fls() is.
 */
static inline unsigned long __fls(unsigned long word)
{
#ifdef __x86_64__
	asm("bsr %1,%0" : "=r" (word) : "rm" (word));
	return word;
#else
	return BITS_PER_LONG - 1 - __builtin_clzl(word);
#endif
}

/* 1 + index of the highest set bit of @x, or 0 if @x is 0. */
static inline int fls(unsigned int x)
{
	return x ? 32 - __builtin_clz(x) : 0;
}

static inline int fls64(u64 x)
{
	return x ? 64 - __builtin_clzll(x) : 0;
}

static inline unsigned int fls_long(unsigned long x)
{
	return x ? BITS_PER_LONG - __builtin_clzl(x) : 0;
}

static inline unsigned int hweight_long(unsigned long w)
{
	return __builtin_popcountl(w);
}

#include <linux/find.h>

#endif /* _SHIM_LINUX_BITOPS_H */
