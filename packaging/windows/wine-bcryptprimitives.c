/* A stand-in for Windows' bcryptprimitives.dll, which Wine 8.0 (Debian 12)
 * lacks and Go programs since Go 1.22 load at start for ProcessPrng. Only
 * the wine tests (packaging/windows/test.sh) use it, installed into their
 * private Wine prefix; Windows 10 and later ship the real one. */
#include <windows.h>
#include <bcrypt.h>

BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T size)
{
	while (size > 0) {
		ULONG n = size > 0x40000000 ? 0x40000000 : (ULONG)size;
		if (BCryptGenRandom(NULL, data, n, BCRYPT_USE_SYSTEM_PREFERRED_RNG) != 0)
			return FALSE;
		data += n;
		size -= n;
	}
	return TRUE;
}
