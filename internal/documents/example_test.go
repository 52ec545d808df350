package documents_test

import (
	"context"
	"fmt"
	"time"

	docintel "github.com/svcplatform/svc/internal/documents"
	"github.com/svcplatform/svc/internal/documents/fixtures"
)

// The stages one by one, as the document workflow runs them as activities.
func Example() {
	pdf, err := fixtures.DefaultNPWP().Layout().PDF()
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	e := docintel.NewEngine(docintel.Config{})

	in, err := e.Inspect(ctx, pdf, "") // errors.Is(err, docintel.ErrPasswordRequired) → wait for a password
	if err != nil {
		panic(err)
	}
	text, err := e.Text(ctx, pdf, "")
	if err != nil {
		panic(err)
	}
	c := docintel.Classify(text, nil) // skipped when the uploader gave a type hint
	x, err := docintel.Extract(text, c.Type, nil, docintel.ExtractOptions{})
	if err != nil {
		panic(err)
	}
	d := docintel.Decide(x, docintel.DefaultThreshold) // the organisation's threshold

	fmt.Println(in.Format, in.Pages, text.Source)
	fmt.Println(c.Type, c.Confidence)
	fmt.Println(d.Status, d.ConfidenceScore)
	for _, name := range x.Order {
		fmt.Printf("%s = %s (%.3f)\n", name, d.Fields[name].Value, d.Fields[name].Confidence)
	}
	// Output:
	// pdf 1 text_layer
	// npwp 1
	// extracted 0.99
	// npwp_number = 09.254.294.3-407.000 (0.994)
	// name = BUDI SANTOSO (0.990)
	// address = JL. MERDEKA NO. 10 RT 001 RW 002 KEBAYORAN BARU JAKARTA SELATAN (0.990)
	// registered_at = 2015-03-12 (0.992)
}

func ExampleParseNPWP() {
	n, err := docintel.ParseNPWP("092542943407000", time.Now())
	fmt.Println(n.Canonical(), n.Office, err)
	_, err = docintel.ParseNPWP("09.254.294.8-407.000", time.Now())
	fmt.Println(err)
	// Output:
	// 09.254.294.3-407.000 407 <nil>
	// check_digit: check digit 8 does not match the first 8 digits
}

func ExampleParseNIK() {
	n, _ := docintel.ParseNIK("3174054506900003", time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC))
	fmt.Println(n.BirthDate.Format(time.DateOnly), n.Female, docintel.ProvinceName(n.Province))
	// Output: 1990-06-05 true DKI JAKARTA
}

func ExampleMRZCheckDigit() {
	d, _ := docintel.MRZCheckDigit("L898902C3")
	fmt.Println(string(d))
	// Output: 6
}
