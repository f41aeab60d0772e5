import { crc32c } from './crc32c';

describe('crc32c', () => {
  it('gives the CRC-32C check value of "123456789"', () => {
    expect(crc32c(Buffer.from('123456789'))).toBe(0xe3069283);
  });

  it('gives the RFC 3720 values of 32 zero bytes and 32 0xFF bytes', () => {
    expect(crc32c(Buffer.alloc(32))).toBe(0x8a9136aa);
    expect(crc32c(Buffer.alloc(32, 0xff))).toBe(0x62a8ab43);
  });

  it('checksums only the given range, whatever its alignment', () => {
    const text = Buffer.from('xx123456789yyy');
    expect(crc32c(text, 2, 11)).toBe(0xe3069283);
    for (let len = 0; len < 12; len++) {
      const part = Buffer.from('abcdefghijkl'.slice(0, len));
      expect(crc32c(Buffer.concat([Buffer.from('!'), part]), 1)).toBe(crc32c(part));
    }
  });
});
