package documents

import "testing"

// tagged is the head of a JPEG as a camera writes it: SOI, a JFIF APP0, an EXIF APP1 with
// one orientation entry (big-endian TIFF), then the start of scan.
func tagged(orientation byte) []byte {
	b := []byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0}
	exif := []byte("Exif\x00\x00MM\x00\x2a\x00\x00\x00\x08\x00\x01\x01\x12\x00\x03\x00\x00\x00\x01\x00")
	exif = append(exif, orientation, 0, 0, 0, 0, 0, 0)
	b = append(b, 0xFF, 0xE1, 0, byte(len(exif)+2))
	b = append(b, exif...)
	return append(b, 0xFF, 0xDA, 0, 2)
}

func TestEXIFRotation(t *testing.T) {
	for orientation, want := range map[byte]int{1: 0, 2: 0, 3: 180, 6: 90, 8: 270, 99: 0} {
		if got := exifRotation(FormatJPEG, tagged(orientation)); got != want {
			t.Errorf("orientation %d: rotation %d, want %d", orientation, got, want)
		}
	}
	jpg := []byte{0xFF, 0xD8, 0xFF, 0xDA, 0, 2}
	if got := exifRotation(FormatJPEG, jpg); got != 0 {
		t.Errorf("untagged JPEG: rotation %d", got)
	}
	tif := []byte{'I', 'I', 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, 8, 0, 0, 0, 0, 0, 0, 0}
	if got := exifRotation(FormatTIFF, tif); got != 270 {
		t.Errorf("TIFF orientation 8: rotation %d", got)
	}
}

func FuzzEXIFRotation(f *testing.F) {
	f.Add([]byte{0xFF, 0xD8, 0xFF, 0xE1, 0, 8, 'E', 'x', 'i', 'f', 0, 0})
	f.Add([]byte("II*\x00\x08\x00\x00\x00\x01\x00\x12\x01\x03\x00\x01\x00\x00\x00\x06\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []Format{FormatJPEG, FormatTIFF} {
			switch r := exifRotation(format, data); r {
			case 0, 90, 180, 270:
			default:
				t.Fatalf("rotation %d", r)
			}
		}
	})
}
