package fraud

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// Dimension is what velocity counters are kept per.
type Dimension string

// The dimensions of velocity counters.
const (
	DimCustomer     Dimension = "customer"
	DimAccount      Dimension = "account"
	DimDevice       Dimension = "device"
	DimIP           Dimension = "ip"
	DimCounterparty Dimension = "counterparty"
)

// Dimensions lists every dimension, in the order features are documented.
var Dimensions = []Dimension{DimCustomer, DimAccount, DimDevice, DimIP, DimCounterparty}

// Window is a velocity window: the events of the last Length up to and including the
// evaluated one, at one-second resolution.
type Window struct {
	// Name is how rules spell it ("24h").
	Name string
	// Length is its duration.
	Length time.Duration
}

// Windows lists the velocity windows.
var Windows = []Window{
	{"5m", 5 * time.Minute}, {"1h", time.Hour}, {"24h", 24 * time.Hour},
	{"7d", 7 * 24 * time.Hour}, {"30d", 30 * 24 * time.Hour},
}

// MaxWindow is the longest window: counters older than it can be deleted.
var MaxWindow = Windows[len(Windows)-1].Length

// attrCountry is the one distinct attribute that is not a dimension.
const attrCountry = "country"

// distinctOf lists, per dimension, the attributes whose distinct values are counted: a device
// used by many customers, a customer on many IPs or paying many counterparties.
var distinctOf = map[Dimension][]string{
	DimCustomer:     {"account", "device", "ip", "counterparty", attrCountry},
	DimAccount:      {"customer", "device", "ip", "counterparty"},
	DimDevice:       {"customer", "account", "ip", attrCountry},
	DimIP:           {"customer", "account", "device", attrCountry},
	DimCounterparty: {"customer", "account"},
}

// Metric is what a feature computes.
type Metric string

// The velocity metrics.
const (
	// MetricCount counts events.
	MetricCount Metric = "count"
	// MetricSum adds amounts in the evaluated event's currency, in major units.
	MetricSum Metric = "sum"
	// MetricDistinct counts the distinct values of an attribute (Feature.Of).
	MetricDistinct Metric = "distinct"
)

// Feature is one velocity feature, read by rules as velocity.<dimension>.<name>
// (velocity.customer.count_1h, velocity.device.distinct_ip_24h).
type Feature struct {
	Dimension Dimension
	Metric    Metric
	// Of is the attribute of a distinct count.
	Of     string
	Window Window
}

// Name is the feature's name inside its dimension.
func (f Feature) Name() string {
	if f.Metric == MetricDistinct {
		return fmt.Sprintf("distinct_%s_%s", f.Of, f.Window.Name)
	}
	return fmt.Sprintf("%s_%s", f.Metric, f.Window.Name)
}

// Path is the feature as rules write it after "velocity.".
func (f Feature) Path() string { return string(f.Dimension) + "." + f.Name() }

// ParseFeature reads velocity.<dim>.<name> back into a Feature.
func ParseFeature(dim, name string) (Feature, error) {
	d := Dimension(dim)
	if !slices.Contains(Dimensions, d) {
		return Feature{}, fmt.Errorf("unknown velocity dimension %q (known: %s)", dim, joinDims())
	}
	cut := strings.LastIndexByte(name, '_')
	if cut < 0 {
		return Feature{}, fmt.Errorf("unknown velocity feature %q: write <metric>_<window>, for example count_1h", name)
	}
	head, win := name[:cut], name[cut+1:]
	i := slices.IndexFunc(Windows, func(w Window) bool { return w.Name == win })
	if i < 0 {
		return Feature{}, fmt.Errorf("unknown velocity window %q in %s (known: 5m, 1h, 24h, 7d, 30d)", win, name)
	}
	f := Feature{Dimension: d, Window: Windows[i]}
	switch {
	case head == string(MetricCount), head == string(MetricSum):
		f.Metric = Metric(head)
	case strings.HasPrefix(head, "distinct_"):
		f.Metric, f.Of = MetricDistinct, strings.TrimPrefix(head, "distinct_")
		if !slices.Contains(distinctOf[d], f.Of) {
			return Feature{}, fmt.Errorf("velocity.%s has no distinct count of %q (known: %s)", dim, f.Of, strings.Join(distinctOf[d], ", "))
		}
	default:
		return Feature{}, fmt.Errorf("unknown velocity metric %q (known: count, sum, distinct_<attribute>)", head)
	}
	return f, nil
}

func joinDims() string {
	s := make([]string, len(Dimensions))
	for i, d := range Dimensions {
		s[i] = string(d)
	}
	return strings.Join(s, ", ")
}

// AllFeatures lists every feature rules can read, for documentation and tests.
func AllFeatures() []Feature {
	var out []Feature
	for _, d := range Dimensions {
		for _, w := range Windows {
			out = append(out, Feature{Dimension: d, Metric: MetricCount, Window: w}, Feature{Dimension: d, Metric: MetricSum, Window: w})
			for _, of := range distinctOf[d] {
				out = append(out, Feature{Dimension: d, Metric: MetricDistinct, Of: of, Window: w})
			}
		}
	}
	return out
}
