<?php
// config/database.php: no database is used; artisan's migration commands still resolve one.
return [
    'default' => 'sqlite',
    'connections' => ['sqlite' => ['driver' => 'sqlite', 'database' => ':memory:', 'prefix' => '']],
    'migrations' => 'migrations',
];
