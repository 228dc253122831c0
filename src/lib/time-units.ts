// Seconds in a day, the one unit conversion every layer uses (UTC days: no leap seconds on the epoch
// grid). Defined here once; the tidy test refuses another definition.

export const DAY_S = 86_400;
