// Streams mysqldump --xml rows through libxml2 SAX2: no DTD, no entities, no network.
