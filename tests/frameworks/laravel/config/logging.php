<?php
// config/logging.php: everything to storage/logs/laravel.log.
return [
    'default' => 'single',
    'channels' => [
        'single' => ['driver' => 'single', 'path' => storage_path('logs/laravel.log'), 'level' => 'debug'],
    ],
];
