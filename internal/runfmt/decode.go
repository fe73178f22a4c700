package runfmt

import (
	"bytes"
	"encoding"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// FieldError is a value of run.json that was refused, with the field that
// holds it ("findings[2].kind").
type FieldError struct {
	Field string
	Err   error
}

// Error names the field and the word (`findings[2].kind: unknown finding
// kind "foo"`); the vocabulary's words, which Parse lists, are left out:
// run.json is perflab's, not typed by hand.
func (e *FieldError) Error() string {
	if ue := (*UnknownError)(nil); errors.As(e.Err, &ue) {
		return fmt.Sprintf("%s: unknown %s %q", e.Field, ue.Vocabulary, ue.Word)
	}
	return e.Field + ": " + e.Err.Error()
}
func (e *FieldError) Unwrap() error { return e.Err }

// Decode decodes the JSON value rd holds into v (a Run, or a type with
// some of its fields). A word a vocabulary does not know is refused as a
// *FieldError that names its field; other errors are encoding/json's.
func Decode(rd io.Reader, v any) error {
	data, err := io.ReadAll(rd)
	if err != nil {
		return err
	}
	err = json.NewDecoder(bytes.NewReader(data)).Decode(v)
	if ue := (*UnknownError)(nil); errors.As(err, &ue) {
		// encoding/json does not say where: find the field by decoding
		// the document again, field by field, as v's type.
		var doc any
		if json.Unmarshal(data, &doc) == nil {
			if field, ferr := locate(reflect.TypeOf(v), doc, ""); ferr != nil && field != "" {
				return &FieldError{Field: field, Err: ferr}
			}
		}
	}
	return err
}

var (
	textUnmarshaler = reflect.TypeFor[encoding.TextUnmarshaler]()
	jsonUnmarshaler = reflect.TypeFor[json.Unmarshaler]()
)

// locate returns the innermost field under path at which doc (decoded as
// any) holds a word unknown to t's vocabularies, with the error; "" and nil
// when there is none.
func locate(t reflect.Type, doc any, path string) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", nil
	}
	err = json.Unmarshal(b, reflect.New(t).Interface())
	if ue := (*UnknownError)(nil); !errors.As(err, &ue) {
		return "", nil
	}
	if !custom(t) {
		if field, ferr := locateIn(t, doc, path); field != "" {
			return field, ferr
		}
	}
	return path, err
}

// custom says t decodes itself: its error is its own, not a field's. A
// struct that decodes itself only to read the keys of earlier files
// (oldkeys.go, mib.go) has its fields' keys still, and is looked into.
func custom(t reflect.Type) bool {
	p := reflect.PointerTo(t)
	return p.Implements(textUnmarshaler) || p.Implements(jsonUnmarshaler) && t.Kind() != reflect.Struct
}

// locateIn looks for the failing field among doc's members.
func locateIn(t reflect.Type, doc any, path string) (string, error) {
	switch t.Kind() {
	case reflect.Pointer:
		return locate(t.Elem(), doc, path)
	case reflect.Struct:
		if m, ok := doc.(map[string]any); ok {
			return locateStruct(t, m, path)
		}
	case reflect.Slice, reflect.Array:
		if a, ok := doc.([]any); ok {
			for i, el := range a {
				if field, err := locate(t.Elem(), el, path+"["+strconv.Itoa(i)+"]"); field != "" {
					return field, err
				}
			}
		}
	case reflect.Map:
		if m, ok := doc.(map[string]any); ok {
			return locateMap(t, m, path)
		}
	}
	return "", nil
}

func locateStruct(t reflect.Type, m map[string]any, path string) (string, error) {
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		switch {
		case !f.IsExported() || name == "-":
			continue
		case f.Anonymous && name == "":
			if field, err := locateIn(f.Type, m, path); field != "" {
				return field, err
			}
			continue
		case name == "":
			name = f.Name
		}
		for key, v := range m {
			if !strings.EqualFold(key, name) {
				continue
			}
			sub := key
			if path != "" {
				sub = path + "." + key
			}
			if field, err := locate(f.Type, v, sub); field != "" {
				return field, err
			}
		}
	}
	return "", nil
}

func locateMap(t reflect.Type, m map[string]any, path string) (string, error) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		sub := path + "[" + strconv.Quote(k) + "]"
		if reflect.PointerTo(t.Key()).Implements(textUnmarshaler) {
			if err := reflect.New(t.Key()).Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(k)); err != nil {
				return sub, err
			}
		}
		if field, err := locate(t.Elem(), m[k], sub); field != "" {
			return field, err
		}
	}
	return "", nil
}
