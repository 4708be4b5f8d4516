// CRC-32C (Castagnoli), the checksum of every journal frame and checkpoint file.
//
// In C because the fast form needs the CPU's crc32 instruction (SSE 4.2), which Swift cannot name: measured, the
// byte-at-a-time table in Swift was 4.7 % of `serve`'s samples under HTTP ingest and ~15 % of a restart (scanning
// segments and checkpoints). The instruction is used when the CPU has it, else slicing-by-8 tables.
#ifndef GEOTRIGGER_CRC32C_H
#define GEOTRIGGER_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// Continues a CRC-32C over `length` bytes. `crc` is the running register (the complement of the checksum so far:
/// start with 0xFFFFFFFF, complement the result).
uint32_t geotrigger_crc32c_update(uint32_t crc, const void *data, size_t length);

/// The same with the tables only, whatever the CPU has (for tests that compare the two).
uint32_t geotrigger_crc32c_update_portable(uint32_t crc, const void *data, size_t length);

/// 1 when `geotrigger_crc32c_update` uses the CPU's instruction.
int geotrigger_crc32c_hardware(void);

#endif
