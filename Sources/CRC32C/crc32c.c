#include "crc32c.h"

#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#endif

static uint32_t tables[8][256];
static int hardware;

// Filled once at load, before any thread can checksum: no locking on the hot path.
__attribute__((constructor)) static void geotrigger_crc32c_init(void) {
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
        tables[0][n] = c;
    }
    for (uint32_t n = 0; n < 256; n++) {
        for (int t = 1; t < 8; t++) tables[t][n] = (tables[t - 1][n] >> 8) ^ tables[0][tables[t - 1][n] & 0xFF];
    }
#if defined(__x86_64__)
    __builtin_cpu_init();
    hardware = __builtin_cpu_supports("sse4.2");
#endif
}

uint32_t geotrigger_crc32c_update_portable(uint32_t crc, const void *data, size_t length) {
    const uint8_t *p = data;
    while (length >= 8) {
        uint32_t lo, hi;
        memcpy(&lo, p, 4);
        memcpy(&hi, p + 4, 4);
        lo ^= crc;  // little-endian: the register meets the first four bytes
        crc = tables[7][lo & 0xFF] ^ tables[6][(lo >> 8) & 0xFF] ^ tables[5][(lo >> 16) & 0xFF] ^ tables[4][lo >> 24]
            ^ tables[3][hi & 0xFF] ^ tables[2][(hi >> 8) & 0xFF] ^ tables[1][(hi >> 16) & 0xFF] ^ tables[0][hi >> 24];
        p += 8;
        length -= 8;
    }
    while (length--) crc = tables[0][(crc ^ *p++) & 0xFF] ^ (crc >> 8);
    return crc;
}

#if defined(__x86_64__)
__attribute__((target("sse4.2"))) static uint32_t update_sse42(uint32_t crc, const uint8_t *p, size_t length) {
    uint64_t c = crc;
    while (length >= 8) {
        uint64_t v;
        memcpy(&v, p, 8);
        c = _mm_crc32_u64(c, v);
        p += 8;
        length -= 8;
    }
    uint32_t c32 = (uint32_t)c;
    while (length--) c32 = _mm_crc32_u8(c32, *p++);
    return c32;
}
#endif

uint32_t geotrigger_crc32c_update(uint32_t crc, const void *data, size_t length) {
#if defined(__x86_64__)
    if (hardware) return update_sse42(crc, data, length);
#endif
    return geotrigger_crc32c_update_portable(crc, data, length);
}

int geotrigger_crc32c_hardware(void) { return hardware; }
