import { addUsd, plusUsd, usdDecimal, usdNumber, usdText, usdTimes, usdUnits } from './usd';

describe('money as exact decimals', () => {
  it('adds amounts whose float sum shows noise to the exact decimal', () => {
    // As floats: 0.00015000000000000001, 0.0012932504000000003 (the noise spend answers carried).
    expect(String(0.00003 + 0.00012)).not.toBe('0.00015');
    expect(String(addUsd(0.00003, 0.00012))).toBe('0.00015');
    const calls = Array.from({ length: 26 }, () => 0.0000497404);
    expect(String(calls.reduce((sum, cost) => sum + cost, 0))).not.toBe('0.0012932504');
    expect(String(addUsd(...calls))).toBe('0.0012932504');
  });

  it('prices tokens exactly, also for a fractional quantity (seconds of audio)', () => {
    // As floats: 0.0000061499999999999996.
    expect(usdDecimal(usdTimes(0.00000015, 13) + usdTimes(0.0000006, 7))).toBe('0.00000615');
    expect(usdDecimal(usdTimes(0.006 / 60, 12.5))).toBe('0.00125');
    expect(usdTimes(3.75e-8, 1_000_000)).toBe(usdUnits(0.0375));
  });

  it('reads numeric column text and writes it back unchanged', () => {
    expect(usdDecimal(usdUnits('12.000000000001'))).toBe('12.000000000001');
    expect(usdDecimal(usdUnits('-0.5'))).toBe('-0.5');
    expect(usdNumber(usdUnits('0.00129325'))).toBe(0.00129325);
  });

  it('shows sub-cent amounts with the digits they have', () => {
    expect(usdText(0.00129325)).toBe('$0.0013');
    expect(usdText(12.345)).toBe('$12.35');
    expect(usdText(0)).toBe('$0.00');
  });

  it('reads a number as the decimal it prints as, whichever way it is read (the fast path agrees with the text)', () => {
    // Prices, costs and sums as they come: whole picodollars, more than twelve places, large amounts.
    // 3e-8 and 0.00012257 are a hair below their decimal once multiplied (29999.999999999996 pico).
    const values = [0, 0.00000405, 1.5e-7, 3e-8, 3.75e-8, 0.00012257, 0.0012932504, 1e-13, 5e-13, 4.99999e-13, 0.1 + 0.2, 2251.79981, 9999.123456789, 123456789.5, -0.00003];
    for (let seed = 1; values.length < 3000; seed++) {
      values.push(Number(((seed * 2654435761) % 1e9) / 10 ** (6 + (seed % 10))), Number((seed * 0.00000017).toPrecision(6)));
    }
    for (const value of values) {
      expect([value, usdUnits(value)]).toEqual([value, usdUnits(String(value))]);
      expect(usdNumber(usdUnits(value))).toBe(Number(usdDecimal(usdUnits(value))));
    }
  });

  it('adds two amounts on the fast path exactly as through bigints, and falls back where they are not plain picodollars', () => {
    const values = [0, -0, 0.00000405, 1.5e-7, 3e-8, 0.00012257, 0.0012932504, 1e-13, 0.1, 0.2, 2251.79981, 9999.123456789, 123456789.5, -0.00003, NaN, Infinity];
    for (let seed = 1; values.length < 600; seed++) values.push(Number(((seed * 2654435761) % 1e9) / 10 ** (6 + (seed % 10))) * (seed % 3 === 0 ? -1 : 1));
    for (const a of values) for (const b of values.slice(0, 60)) expect([a, b, plusUsd(a, b)]).toEqual([a, b, addUsd(a, b)]);
    // The float sum shows noise; the exact one does not.
    expect(plusUsd(0.1, 0.2)).toBe(0.3);
  });
});
