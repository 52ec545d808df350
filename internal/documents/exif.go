package documents

import (
	"bytes"
	"encoding/binary"
)

// exifRotation reads the orientation a camera recorded (EXIF tag 0x0112) in a JPEG's APP1
// segment or a TIFF's first directory, and returns the clockwise rotation in degrees that
// shows the picture upright: phones store the sensor's pixels and only this tag says the
// card was photographed sideways. Mirrored orientations and anything unreadable give 0.
func exifRotation(f Format, data []byte) int {
	switch f {
	case FormatJPEG:
		return orientationRotation(jpegOrientation(data))
	case FormatTIFF:
		return orientationRotation(tiffOrientation(data))
	}
	return 0
}

func orientationRotation(o int) int {
	switch o {
	case 3:
		return 180
	case 6:
		return 90
	case 8:
		return 270
	}
	return 0
}

// jpegOrientation walks the JPEG segments before the image data looking for "Exif".
func jpegOrientation(data []byte) int {
	i := 2 // after SOI
	for i+4 <= len(data) && data[i] == 0xFF {
		marker := data[i+1]
		switch {
		case marker == 0xFF: // fill byte
			i++
			continue
		case marker == 0x01 || marker >= 0xD0 && marker <= 0xD8:
			i += 2
			continue
		case marker == 0xDA || marker == 0xD9: // start of scan, end of image
			return 0
		}
		n := int(binary.BigEndian.Uint16(data[i+2:]))
		if n < 2 || i+2+n > len(data) {
			return 0
		}
		seg := data[i+4 : i+2+n]
		if marker == 0xE1 && bytes.HasPrefix(seg, []byte("Exif\x00\x00")) {
			return tiffOrientation(seg[6:])
		}
		i += 2 + n
	}
	return 0
}

// tiffOrientation reads tag 0x0112 from the first image file directory of a TIFF structure.
func tiffOrientation(t []byte) int {
	if len(t) < 8 {
		return 0
	}
	var bo binary.ByteOrder
	switch string(t[:4]) {
	case "II*\x00":
		bo = binary.LittleEndian
	case "MM\x00*":
		bo = binary.BigEndian
	default:
		return 0
	}
	off := int(bo.Uint32(t[4:]))
	if off < 8 || off+2 > len(t) {
		return 0
	}
	n := int(bo.Uint16(t[off:]))
	for k := 0; k < n; k++ {
		e := off + 2 + 12*k
		if e+12 > len(t) {
			return 0
		}
		if bo.Uint16(t[e:]) == 0x0112 && bo.Uint16(t[e+2:]) == 3 { // SHORT
			return int(bo.Uint16(t[e+8:]))
		}
	}
	return 0
}
