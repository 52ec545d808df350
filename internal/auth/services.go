package auth

import "slices"

// ServiceConnection is one product calling a sibling product's API on an organisation's
// behalf with a service principal key (SPEC 5.6): the platform issues that key, marked with
// callerServiceSlug Caller and holding only Scopes, to every organisation that has both
// products. Callers never issue these keys themselves.
type ServiceConnection struct {
	// Caller is the calling product; it is the key's callerServiceSlug.
	Caller string
	// Callee is the product whose API the caller calls.
	Callee string
	// Scopes are exactly the scopes the calls need.
	Scopes []string
}

// serviceConnections is the one table of sibling connections.
var serviceConnections = []ServiceConnection{
	// The identity product screens a verified person through POST /api/screenings.
	{Caller: ProductIdentity, Callee: ProductScreening, Scopes: []string{"screenings:write"}},
}

// ServiceConnectionOf is the connection whose calling service is caller.
func ServiceConnectionOf(caller string) (ServiceConnection, bool) {
	i := slices.IndexFunc(serviceConnections, func(c ServiceConnection) bool { return c.Caller == caller })
	if i < 0 {
		return ServiceConnection{}, false
	}
	c := serviceConnections[i]
	c.Scopes = slices.Clone(c.Scopes)
	return c, true
}

// ServiceConnections lists every sibling connection.
func ServiceConnections() []ServiceConnection {
	out := make([]ServiceConnection, 0, len(serviceConnections))
	for _, c := range serviceConnections {
		c.Scopes = slices.Clone(c.Scopes)
		out = append(out, c)
	}
	return out
}

// Connected reports whether an organisation with caps has both products of the connection.
func (c ServiceConnection) Connected(caps Capabilities) bool {
	return caps.Has(c.Caller) && caps.Has(c.Callee)
}
