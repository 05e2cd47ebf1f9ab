// Fits the code as written: single quotes, semicolons, trailing commas and a 2-space indent (the
// last three are Prettier's defaults). 160 columns because the code wraps late: 99% of its lines
// fit in 160, and wider settings touch hardly fewer of them.
export default {
  singleQuote: true,
  printWidth: 160,
};
