// Reads order and receipt dumps (CSV/TSV, JSON Lines, mysqldump XML) as records with locations.
