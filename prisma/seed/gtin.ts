// GTIN-13 (EAN-13) helpers so seeded barcodes pass the check-digit validation real scanners and feeds apply.

/** GS1 General Specifications §7.9.1: weights 1,3,1,3… from the left over 12 digits; check = (10 − sum mod 10) mod 10. */
export const gtin13CheckDigit = (first12: string): number => {
  if (!/^\d{12}$/.test(first12)) throw new Error(`GTIN-13 body must be 12 digits, got "${first12}"`);
  let sum = 0;
  for (let i = 0; i < 12; i += 1) sum += Number(first12.charCodeAt(i) - 48) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
};

export const toGtin13 = (first12: string): string => `${first12}${gtin13CheckDigit(first12)}`;

export const isValidGtin13 = (code: string): boolean =>
  /^\d{13}$/.test(code) && gtin13CheckDigit(code.slice(0, 12)) === Number(code.slice(12));
