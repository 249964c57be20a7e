package pgwire

import (
	"github.com/jackc/pgx/v5/pgproto3"
	"github.com/streamdb/streamdb/pgerr"
	"github.com/streamdb/streamdb/types"
)

// decodeParams turns a Bind message's parameter values into Datums of the
// prepared statement's parameter types: text values through the session's
// text configuration, binary values in PostgreSQL's send/recv format. A
// parameter whose type the engine left unknown is taken as text, as
// PostgreSQL resolves unknown to text.
func decodeParams(m *pgproto3.Bind, p *prepared, stmtName string, cfg *types.TextConfig) ([]types.Datum, error) {
	nf, np := len(m.ParameterFormatCodes), len(m.Parameters)
	if nf > 1 && nf != np {
		return nil, localf(pgerr.ProtocolViolation, "bind message has %d parameter formats but %d parameters", nf, np)
	}
	if np != len(p.params) {
		return nil, localf(pgerr.ProtocolViolation, "bind message supplies %d parameters, but prepared statement \"%s\" requires %d", np, stmtName, len(p.params))
	}
	if np == 0 {
		return nil, nil
	}
	out := make([]types.Datum, np)
	for i, v := range m.Parameters {
		if v == nil {
			continue // NULL
		}
		f := formatOf(m.ParameterFormatCodes, i)
		if f != formatText && f != formatBinary {
			return nil, localf(pgerr.InvalidParameterValue, "unsupported format code: %d", f)
		}
		t := p.params[i]
		var err error
		switch {
		case f == formatText:
			s := string(v)
			if err = checkEncoding(s); err == nil {
				out[i], err = parseParamText(s, t, cfg)
			}
		case t.Family == types.Unknown:
			out[i] = types.NewText(string(v))
		default:
			out[i], err = types.ParseBinary(v, t)
		}
		if err != nil {
			return nil, local(err)
		}
	}
	return out, nil
}

func parseParamText(s string, t types.Type, cfg *types.TextConfig) (types.Datum, error) {
	if t.Family == types.Unknown {
		return types.NewText(s), nil
	}
	return types.ParseText(s, t, cfg)
}
