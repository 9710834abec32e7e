<?php
// config/cache.php: the default file store and Octane's shared-memory store.
return [
    'default' => 'file',
    'stores' => [
        'file' => ['driver' => 'file', 'path' => storage_path('framework/cache/data')],
        'octane' => ['driver' => 'octane'],
    ],
    'prefix' => 'check',
];
