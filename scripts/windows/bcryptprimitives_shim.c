#include <windows.h>
/* Rust's std (1.78+) takes random bytes from ProcessPrng in bcryptprimitives.dll, which
   Wine 8.0 lacks: forward it to RtlGenRandom (SystemFunction036 in advapi32). */
BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);
__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length) {
    return SystemFunction036(data, (ULONG)length);
}
