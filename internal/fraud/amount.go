package fraud

import (
	"fmt"
	"math"
	"math/big"
	"regexp"
	"strconv"
)

// MaxAmountMinor caps an amount in minor units: 10^15 keeps every amount, and every sum of a
// velocity window, exact in a float64 and an int64.
const MaxAmountMinor = 1_000_000_000_000_000

// Amount is money in minor units of an ISO 4217 currency.
type Amount struct {
	// Minor is the amount in the currency's minor units (cents), never negative.
	Minor int64
	// Currency is the ISO 4217 code.
	Currency string
}

// Major is the amount in major units, as rules see it.
func (a Amount) Major() float64 { return MinorToMajor(a.Minor, a.Currency) }

// String renders the amount with the currency's decimals ("12.50 EUR").
func (a Amount) String() string {
	return strconv.FormatFloat(a.Major(), 'f', currencyExponents[a.Currency], 64) + " " + a.Currency
}

// MinorToMajor converts minor units of currency to major units.
func MinorToMajor(minor int64, currency string) float64 {
	return float64(minor) / math.Pow10(currencyExponents[currency])
}

// ValidCurrency reports whether code is an ISO 4217 code a transaction can be paid in.
func ValidCurrency(code string) bool {
	_, ok := currencyExponents[code]
	return ok
}

// jsonNumber is JSON's number grammar with a short exponent: a longer one would make the
// exact decimal conversion below expensive, and no amount needs it.
var jsonNumber = regexp.MustCompile(`^-?(0|[1-9][0-9]{0,39})(\.[0-9]{1,40})?([eE][+-]?[0-9]{1,2})?$`)

// parseAmount reads the JSON number text raw as an exact amount of currency. It refuses what
// a float parser would quietly accept: negative zero, more decimals than the currency has, and
// values a float64 would round.
func parseAmount(raw, currency string) (int64, error) {
	if !jsonNumber.MatchString(raw) {
		return 0, fmt.Errorf("must be a plain decimal number such as 12.50")
	}
	r, ok := new(big.Rat).SetString(raw)
	if !ok {
		return 0, fmt.Errorf("must be a plain decimal number such as 12.50")
	}
	switch {
	case raw[0] == '-' && r.Sign() == 0:
		return 0, fmt.Errorf("must not be negative zero")
	case r.Sign() < 0:
		return 0, fmt.Errorf("must not be negative (send refunds and reversals with their own type)")
	}
	exp, ok := currencyExponents[currency]
	if !ok {
		// The currency has its own error; the amount is checked against two decimals meanwhile.
		exp = 2
	}
	r.Mul(r, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(exp)), nil)))
	if !r.IsInt() {
		return 0, fmt.Errorf("has more decimal places than %s allows (%d)", currencyOr(currency), exp)
	}
	n := r.Num()
	if !n.IsInt64() || n.Int64() > MaxAmountMinor {
		return 0, fmt.Errorf("is too large (at most %d minor units)", int64(MaxAmountMinor))
	}
	return n.Int64(), nil
}

func currencyOr(c string) string {
	if ValidCurrency(c) {
		return c
	}
	return "the currency"
}
