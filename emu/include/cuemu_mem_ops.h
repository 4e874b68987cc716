/*
 * memcpy and its family for the CPU emulator, force-included by cuemu-cc
 * into the compile of a rewritten .cu file. The explicit builtins would be
 * expanded inline by the compiler, where ThreadSanitizer's instrumentation
 * does not see them: they become calls to the runtime's traced copies
 * (emu/runtime/mem_ops.c), the same functions that cuemu-cc renames the
 * library's memcpy and friends to in the compiled object.
 */
#ifndef CUEMU_MEM_OPS_H
#define CUEMU_MEM_OPS_H

#ifdef __cplusplus
extern "C" {
#define CUEMU_NOEXCEPT_ noexcept
#else
#define CUEMU_NOEXCEPT_
#endif
void *cuemu_memcpy_(void *d, const void *s, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void *cuemu_memmove_(void *d, const void *s, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void *cuemu_mempcpy_(void *d, const void *s, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void *cuemu_memset_(void *d, int v, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void cuemu_bcopy_(const void *s, void *d, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void cuemu_bzero_(void *d, __SIZE_TYPE__ n) CUEMU_NOEXCEPT_;
void *cuemu___memcpy_chk_(void *d, const void *s, __SIZE_TYPE__ n, __SIZE_TYPE__ room) CUEMU_NOEXCEPT_;
void *cuemu___memmove_chk_(void *d, const void *s, __SIZE_TYPE__ n, __SIZE_TYPE__ room) CUEMU_NOEXCEPT_;
void *cuemu___mempcpy_chk_(void *d, const void *s, __SIZE_TYPE__ n, __SIZE_TYPE__ room) CUEMU_NOEXCEPT_;
void *cuemu___memset_chk_(void *d, int v, __SIZE_TYPE__ n, __SIZE_TYPE__ room) CUEMU_NOEXCEPT_;
#ifdef __cplusplus
}
#endif
#undef CUEMU_NOEXCEPT_

#define __builtin_memcpy cuemu_memcpy_
#define __builtin_memmove cuemu_memmove_
#define __builtin_mempcpy cuemu_mempcpy_
#define __builtin_memset cuemu_memset_
#define __builtin_bcopy cuemu_bcopy_
#define __builtin_bzero cuemu_bzero_
#define __builtin___memcpy_chk cuemu___memcpy_chk_
#define __builtin___memmove_chk cuemu___memmove_chk_
#define __builtin___mempcpy_chk cuemu___mempcpy_chk_
#define __builtin___memset_chk cuemu___memset_chk_

#endif
