// Streams gzip (and later zip) through zlib, with size and ratio caps.
